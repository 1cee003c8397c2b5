# Writes the Russian development set's plain and [F]-annotated files from the table below.
# Sentences written for Registro by its developers (no public EN→RU formality data exists); each
# marked phrase is where the formal (вы) and informal (ты) references differ.
import re
ROWS = [
("Do you have a minute to talk?", "У [F]вас[/F] есть минутка поговорить?", "У [F]тебя[/F] есть минутка поговорить?"),
("Where did you buy this phone?", "Где [F]вы[/F] [F]купили[/F] этот телефон?", "Где [F]ты[/F] [F]купил[/F] этот телефон?"),
("Could you repeat your order number, please?", "Не [F]могли[/F] бы [F]вы[/F] повторить [F]ваш[/F] номер заказа, пожалуйста?", "Не [F]мог[/F] бы [F]ты[/F] повторить [F]твой[/F] номер заказа, пожалуйста?"),
("Your package will arrive on Monday.", "[F]Ваша[/F] посылка придёт в понедельник.", "[F]Твоя[/F] посылка придёт в понедельник."),
("Do you like watching football?", "[F]Вы[/F] [F]любите[/F] смотреть футбол?", "[F]Ты[/F] [F]любишь[/F] смотреть футбол?"),
("Please wait a moment, I will check.", "[F]Подождите[/F], пожалуйста, я проверю.", "[F]Подожди[/F], пожалуйста, я проверю."),
("What is your favourite book?", "Какая [F]ваша[/F] любимая книга?", "Какая [F]твоя[/F] любимая книга?"),
("I can send you the invoice by email.", "Я могу отправить [F]вам[/F] счёт по электронной почте.", "Я могу отправить [F]тебе[/F] счёт по электронной почте."),
("Have you ever been to Italy?", "[F]Вы[/F] когда-нибудь [F]были[/F] в Италии?", "[F]Ты[/F] когда-нибудь [F]был[/F] в Италии?"),
("Tell me what happened.", "[F]Расскажите[/F], что случилось.", "[F]Расскажи[/F], что случилось."),
("Do you know how to reset the router?", "[F]Вы[/F] [F]знаете[/F], как перезагрузить роутер?", "[F]Ты[/F] [F]знаешь[/F], как перезагрузить роутер?"),
("Thank you for calling.", "Спасибо, что [F]позвонили[/F].", "Спасибо, что [F]позвонил[/F]."),
("What do you think about the new film?", "Что [F]вы[/F] [F]думаете[/F] о новом фильме?", "Что [F]ты[/F] [F]думаешь[/F] о новом фильме?"),
("I will call you back tomorrow.", "Я [F]вам[/F] перезвоню завтра.", "Я [F]тебе[/F] перезвоню завтра."),
("Is this your first time here?", "[F]Вы[/F] здесь впервые?", "[F]Ты[/F] здесь впервые?"),
("Can you hear me now?", "[F]Вы[/F] меня сейчас [F]слышите[/F]?", "[F]Ты[/F] меня сейчас [F]слышишь[/F]?"),
("Please check your spam folder.", "Пожалуйста, [F]проверьте[/F] папку «Спам».", "Пожалуйста, [F]проверь[/F] папку «Спам»."),
("Where do you live?", "Где [F]вы[/F] [F]живёте[/F]?", "Где [F]ты[/F] [F]живёшь[/F]?"),
("I hope you had a good weekend.", "Надеюсь, [F]вы[/F] хорошо [F]провели[/F] выходные.", "Надеюсь, [F]ты[/F] хорошо [F]провёл[/F] выходные."),
("Your account has been blocked for your safety.", "[F]Ваш[/F] аккаунт заблокирован ради [F]вашей[/F] безопасности.", "[F]Твой[/F] аккаунт заблокирован ради [F]твоей[/F] безопасности."),
("Do you want to come with us?", "[F]Хотите[/F] пойти с нами?", "[F]Хочешь[/F] пойти с нами?"),
("How long have you worked there?", "Как долго [F]вы[/F] там [F]работаете[/F]?", "Как долго [F]ты[/F] там [F]работаешь[/F]?"),
("Don't forget to bring your passport.", "Не [F]забудьте[/F] взять [F]ваш[/F] паспорт.", "Не [F]забудь[/F] взять [F]твой[/F] паспорт."),
("Did you get my message?", "[F]Вы[/F] [F]получили[/F] моё сообщение?", "[F]Ты[/F] [F]получил[/F] моё сообщение?"),
("I agree with you completely.", "Я полностью согласен с [F]вами[/F].", "Я полностью согласен с [F]тобой[/F]."),
("Can you recommend a good restaurant?", "[F]Можете[/F] порекомендовать хороший ресторан?", "[F]Можешь[/F] порекомендовать хороший ресторан?"),
("Send me a photo of the receipt, please.", "[F]Пришлите[/F] мне, пожалуйста, фото чека.", "[F]Пришли[/F] мне, пожалуйста, фото чека."),
("What kind of music do you listen to?", "Какую музыку [F]вы[/F] [F]слушаете[/F]?", "Какую музыку [F]ты[/F] [F]слушаешь[/F]?"),
("Your English is very good.", "[F]Ваш[/F] английский очень хорош.", "[F]Твой[/F] английский очень хорош."),
("Are you sure you turned it off?", "[F]Вы[/F] [F]уверены[/F], что [F]выключили[/F] его?", "[F]Ты[/F] [F]уверен[/F], что [F]выключил[/F] его?"),
]
base = "formality-control.dev.written.en-ru"
plain = lambda s: re.sub(r"\[/?F\]", "", s)
with open(f"{base}.en", "w") as en, open(f"{base}.formal.ru", "w") as f, open(f"{base}.informal.ru", "w") as i, \
     open(f"{base}.formal.annotated.ru", "w") as fa, open(f"{base}.informal.annotated.ru", "w") as ia:
    for src, formal, informal in ROWS:
        en.write(src + "\n"); fa.write(formal + "\n"); ia.write(informal + "\n")
        f.write(plain(formal) + "\n"); i.write(plain(informal) + "\n")
print(len(ROWS), "pairs")
